"""The same echo client as Conformance/Autobahn (konex-autobahn), written with python-websockets: the peer Konex's
times in Autobahn's group 9 are set beside (scripts/autobahn --speed).

    python autobahn_peer.py ws://127.0.0.1:9001 AGENT
"""
import asyncio
import sys

import websockets


async def main(server: str, agent: str) -> None:
    async with websockets.connect(f"{server}/getCaseCount") as socket:
        count = int(await socket.recv())
    for case in range(1, count + 1):
        try:
            async with websockets.connect(
                f"{server}/runCase?case={case}&agent={agent}", max_size=64 << 20, compression=None
            ) as socket:
                async for message in socket:
                    await socket.send(message)
        except websockets.exceptions.WebSocketException:
            pass  # a case that breaks the protocol on purpose: the report judges it
    try:
        async with websockets.connect(f"{server}/updateReports?agent={agent}") as socket:
            async for _ in socket:
                pass
    except (websockets.exceptions.WebSocketException, OSError):
        pass  # the server exits as it answers


asyncio.run(main(sys.argv[1], sys.argv[2]))
