#if AsyncHTTPClient
    import NIOCore

    /// Holds the news that the socket closed for one turn of the event loop, so a 101 answered with frames in the same
    /// write is upgraded before the HTTP decoder hears of the end.
    ///
    /// A server that refuses a client right after the upgrade writes the 101, a message and a close at once and hangs
    /// up. NIO's upgrade removes the HTTP decoder on the loop's next turn and forwards the bytes after the 101 to the
    /// WebSocket decoder, but a decoder told of the end before that drops those bytes (it forwards leftovers only
    /// when no end was seen), and the handshake handler reads the end as "no response". Delivered one turn later, the
    /// end comes after the upgrade and its frames: the message and the close code are read.
    final class EndOfInputDeferral: ChannelInboundHandler {
        typealias InboundIn = NIOAny

        func channelInactive(context: ChannelHandlerContext) {
            context.eventLoop.assumeIsolated().execute { context.fireChannelInactive() }
        }
    }
#endif
