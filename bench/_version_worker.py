"""The computer player of another version of the rules core, answering one move per line (run by
:class:`bench.arena.VersionPlayer` as ``python -c <this file's text>`` in a folder holding that version's ``games``).

Each request is a JSON line ``{"game", "state", "level", "seed"}`` (``state`` as ``to_dict()``); each answer a JSON
line ``{"move": notation, "cpu_ms": CPU milliseconds the move took}`` or ``{"error": text}``. This file imports
nothing of ours at the top: ``games`` must come from the folder it runs in, not from the current tree.
"""

import json
import random
import sys
import time


def serve() -> None:
    """Answer requests on standard input until it closes."""
    from games import GAMES

    for line in sys.stdin:
        request = json.loads(line)
        try:
            game = GAMES[request["game"]]
            state = game.load(request["state"])
            began = time.process_time()
            move = game.computer_move(state, request["level"], random.Random(request["seed"]))
            answer = {"move": state.format_move(move), "cpu_ms": (time.process_time() - began) * 1000.0}
        except Exception as error:  # noqa: BLE001 - the answer carries it back to the arena
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    serve()
