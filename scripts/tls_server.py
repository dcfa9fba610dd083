"""Three HTTPS servers on 127.0.0.1 for the TLS settings tests (scripts/tls-server starts them).

argv: DIR PORT_A PORT_OTHER PORT_MUTUAL. DIR holds the throwaway certificates scripts/tls-server made:
- PORT_A: server.pem (signed by ca.pem); no client certificate asked.
- PORT_OTHER: other-server.pem (signed by other-ca.pem, another key).
- PORT_MUTUAL: server.pem, and a client certificate signed by ca.pem is required.
Every GET answers JSON: the path and the common name of the client's certificate (null without one).
"""
import json
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        peer = self.connection.getpeercert()
        common_name = None
        if peer:
            for rdn in peer.get("subject", ()):
                for key, value in rdn:
                    if key == "commonName":
                        common_name = value
        body = json.dumps({"path": self.path, "client": common_name}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def serve(port, cert, key, client_ca=None):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def main():
    directory, port_a, port_other, port_mutual = sys.argv[1], *map(int, sys.argv[2:5])
    path = lambda name: f"{directory}/{name}"
    threads = [
        serve(port_a, path("server.pem"), path("server-key.pem")),
        serve(port_other, path("other-server.pem"), path("other-server-key.pem")),
        serve(port_mutual, path("server.pem"), path("server-key.pem"), client_ca=path("ca.pem")),
    ]
    print("ready", flush=True)
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main()
