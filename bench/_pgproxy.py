"""A loopback TCP proxy in front of a PostgreSQL server that counts round trips, for the benchmarks and the tests.

A round trip is one turn of a connection's conversation: the client sends (one message or a whole pipeline of
them) and then waits for the server's answer. The proxy counts, per connection, every burst of bytes from the
client that follows bytes from the server (or opens the connection), so pipelined statements sent together count
once and each statement the client waits for counts once. Counting at the socket is the same for every client
(psycopg, ``pgbench``) and needs nothing from the server.

.. code-block:: python

    with RoundTripProxy(cluster.host, cluster.port) as proxy:
        db = await Database.open(proxy.url(url))
        before = proxy.round_trips
        await services.moves.play(...)
        print(proxy.round_trips - before)

:meth:`RoundTripProxy.cut` closes every proxied connection at once (as a failing network or a load balancer
does).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit

_CHUNK = 65536


class _Link:
    """One proxied connection: the client's socket, the server's, and whose bytes came last."""

    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.client = client
        self.server = server
        self.last = "server"  # the client speaks first: its first burst is a turn
        self.losing = False
        """The server's next answer on this link is dropped (:meth:`RoundTripProxy.lose_next_answer`)."""

    def close(self) -> None:
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


class RoundTripProxy:
    """Listens on a free loopback port and forwards every connection to ``host:port``, counting round trips.

    Args:
        host: the server's address. port: its port.
    """

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = "127.0.0.1", int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._links: list[_Link] = []
        self._round_trips = 0
        self._lose: str | None = None
        self._closed = False
        self._acceptor = threading.Thread(target=self._accept, name="round-trip-proxy", daemon=True)
        self._acceptor.start()

    @property
    def round_trips(self) -> int:
        """Round trips of every connection so far (since the proxy started)."""
        with self._lock:
            return self._round_trips

    @property
    def connections(self) -> int:
        """Connections accepted so far."""
        with self._lock:
            return len(self._links)

    def url(self, url: str) -> str:
        """``url`` (a ``postgresql://`` URL of the proxied server) with the proxy's address instead."""
        parts = urlsplit(url)
        netloc = parts.netloc.rsplit("@", 1)
        address = f"{self.host}:{self.port}"
        return urlunsplit(parts._replace(netloc=f"{netloc[0]}@{address}" if len(netloc) == 2 else address))

    def lose_next_request(self) -> None:
        """The next bytes a client sends are dropped and its connection closed: the server never sees them."""
        with self._lock:
            self._lose = "request"

    def lose_next_answer(self) -> None:
        """The next bytes a client sends reach the server, but its answer is dropped and the connection closed: the
        server did the work, the client never hears of it."""
        with self._lock:
            self._lose = "answer"

    def cut(self) -> int:
        """Close every connection open through the proxy (new ones are still accepted); return how many."""
        with self._lock:
            links, self._links = self._links, []
        for link in links:
            link.close()
        return len(links)

    def close(self) -> None:
        """Stop listening and close every connection (idempotent)."""
        self._closed = True
        with contextlib.suppress(OSError):  # wakes the acceptor blocked in accept() (closing alone does not)
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self.cut()
        self._acceptor.join(timeout=5)

    def __enter__(self) -> RoundTripProxy:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            link = _Link(client, server)
            with self._lock:
                self._links.append(link)
            threading.Thread(target=self._pump, args=(link, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(link, False), daemon=True).start()

    def _loses(self, link: _Link, from_client: bool) -> bool:
        """Whether the bytes just read are dropped (:meth:`lose_next_request`, :meth:`lose_next_answer`); called
        under the lock."""
        if from_client and self._lose is not None:
            losing, self._lose = self._lose, None
            link.losing = losing == "answer"
            return losing == "request"
        return not from_client and link.losing

    def _pump(self, link: _Link, from_client: bool) -> None:
        source, sink = (link.client, link.server) if from_client else (link.server, link.client)
        try:
            while data := source.recv(_CHUNK):
                with self._lock:  # noted before forwarding: an answer reaches the client only after this
                    if from_client and link.last == "server":
                        self._round_trips += 1
                    link.last = "client" if from_client else "server"
                    lost = self._loses(link, from_client)
                if lost:
                    return  # the finally closes both ends
                sink.sendall(data)
        except OSError:
            pass
        finally:
            link.close()
