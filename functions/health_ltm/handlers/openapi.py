"""Print the OpenAPI description generated from the resolver (`make openapi` commits it)."""

from __future__ import annotations

import json

from .api_app import openapi_json


def main() -> None:
    print(json.dumps(json.loads(openapi_json()), indent=2, ensure_ascii=False, sort_keys=True))


if __name__ == "__main__":
    main()
