"""`python -m sandbox [--host 127.0.0.1] --port 8100 [--db var/sandbox.sqlite3] [--time-scale 0.055]`"""

import argparse

from sandbox.server import serve_forever


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox", description="Serve the local sandbox of the remote service."
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 in a container)"
    )
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument(
        "--db", default=None, help="SQLite file (default $SANDBOX_DB or var/sandbox.sqlite3); ':memory:' for throwaway"
    )
    parser.add_argument(
        "--time-scale",
        type=float,
        default=None,
        help="real seconds per simulated second (default $SANDBOX_TIME_SCALE or 0.055)",
    )
    parser.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        help="requests per minute per key (default $SANDBOX_RATE_LIMIT_PER_MINUTE or 1200; 0 = off)",
    )
    args = parser.parse_args()
    serve_forever(
        host=args.host,
        port=args.port,
        db_path=args.db,
        time_scale=args.time_scale,
        rate_limit_per_minute=args.rate_limit,
    )


if __name__ == "__main__":
    main()
