#!/usr/bin/env python3
"""A TCP relay that can be shut like a gate: a replica's path to the database.

    tcp_gate.py LISTEN_PORT:TARGET_PORT [LISTEN_PORT:TARGET_PORT ...]

Relays each loopback listen port to its target port, and looks like its target from the
outside: while the target refuses connections (a database server that died), so does the
listen port. SIGUSR1 shuts the gate, as a network partition would: the relayed connections
are cut and new ones are held unanswered (a client's connect timeout decides), until
SIGUSR2 opens it again.
"""
import asyncio
import signal
import sys


class Gate:
    def __init__(self):
        self.open = asyncio.Event()
        self.open.set()
        self.links = set()

    def shut(self):
        self.open.clear()
        for w in list(self.links):
            w.transport.abort()
        self.links.clear()

    async def relay(self, reader, writer, target_port):
        if not self.open.is_set():
            await self.open.wait()  # unanswered while shut; the client gives up first
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            writer.transport.abort()
            return
        self.links.update({writer, up_writer})

        async def pump(src, dst):
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self.links.difference_update({writer, up_writer})


async def reachable(port):
    try:
        _, w = await asyncio.open_connection("127.0.0.1", port)
        w.transport.abort()
        return True
    except OSError:
        return False


async def mirror(gate, listen, target):
    """Listens on `listen` exactly while `target` accepts connections."""
    server = None
    while True:
        up = await reachable(target)
        if up and server is None:
            server = await asyncio.start_server(lambda r, w: gate.relay(r, w, target), "127.0.0.1", listen,
                                                reuse_address=True)
        elif not up and server is not None:
            server.close()
            server = None
        await asyncio.sleep(0.2)


async def main(pairs):
    gate = Gate()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, gate.shut)
    loop.add_signal_handler(signal.SIGUSR2, gate.open.set)
    tasks = []
    for pair in pairs:
        listen, target = (int(p) for p in pair.split(":"))
        tasks.append(asyncio.create_task(mirror(gate, listen, target)))
    await asyncio.sleep(0.3)
    print("gate open", flush=True)
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
