"""provgraph.client stays light: importing it pulls in no server dependency."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("fastapi", "neo4j", "strawberry", "uvicorn", "pydantic_settings", "starlette")


def test_importing_the_client_loads_no_server_dependency() -> None:
    code = (
        "import json, sys\n"
        "import provgraph.client\n"
        "from provgraph.client import Emitter, HttpTransport, KafkaTransport, from_env\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
