// The pipeline order, documented once. The engine is this folder: `DataRequest+Execution.swift` runs the steps in this
// order; `RequestRun.swift` is what a run settles once (build, the components in order, the recorders) and lends to
// every step; `DataRequest+Building.swift` is the build (with `EndpointShape` and `CheckedBase`, its checks and its
// cache of joined URLs), `DataRequest+Exchange.swift` the transport (the call, redirects and taking the body),
// `DataRequest+Steps.swift` the others; `Recorders.swift` tells the instruments; `Answers.swift` holds what comes back.
//
//  1. build      the TransportRequest from the KonexRequest (URL, query, headers, body) stage .invalidRequest
//  2. adapt      client adapters → request adapters → call-site adapters              stage .adaptation
//     instrument recorders see the adapted request and may set headers (a trace context)
//  3. plugins    didSendRequest, client → request → call site
//  4. transport  the interceptors (client → request → call site, outermost first: a cache, a coalescer, a limit)
//                around Transport.send, timed by Konex, for every terminal but webSocket(); a stream or a
//                download passes with its body still arriving or in a file (TransportNext.delivery)
//                                                                                     stage .transport / .cancelled
//                                                                                     / .queueFull
//  5. plugins    didReceiveResponse, same order, success or failure
//  6. validate   client validators → request validators → call-site validators        stage .validation
//                the verdict: the answer accepted, or the attempt's failure rejected
//     retry      a rejected attempt is offered to the retriers (client → request → call site); one may
//                ask for another attempt after a delay, which restarts at step 2 with the request made again
//  7. process    client processors → request processors → call-site processors        stage .processing
//  8. serialize  the terminal operation (data, string, JSON, Decodable, key path)     stage .decoding
//
// Instruments (tracing, metrics) hear of the start, each attempt, each retry and the end (a stream's when its body
// ends); `DataRequest.explain()` prints this order for one request.
// Every failure becomes one KonexError carrying the stage, the request, and whatever response there was.
