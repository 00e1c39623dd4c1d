"""Logs of a whole flow never contain what the user said."""

from __future__ import annotations

import logging

from .conftest import api_event, call, drain_extraction

SAID = [
    "У меня аллергия на арахис",
    "Пью Энап 5 мг по утрам от давления",
    "Третий день болит голова",
    "I was diagnosed with HIV last year",
]
FRAGMENTS_OF_SPEECH = ["арахис", "Энап", "давлени", "болит голова", "HIV", "diagnosed"]


def test_a_whole_flow_logs_no_health_data(cloud, capsys, caplog):
    # Everything at its most verbose: the guards in observability.py must hold anyway.
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="aws_lambda_powertools")
    for text in SAID:
        call(
            api_event(
                "POST",
                "/v1/fragments",
                body={"session_id": "s1", "messages": [{"role": "user", "text": text}]},
            )
        )
    drain_extraction(cloud)
    call(api_event("POST", "/v1/context", body={"query": "Можно ли мне ибупрофен от головной боли?"}))
    call(api_event("GET", "/v1/facts"))
    call(api_event("GET", "/v1/export"))
    call(
        api_event(
            "POST",
            "/v1/fragments",
            body={"session_id": "s1", "messages": [{"role": "user", "text": "арахис " * 5000}]},
        )
    )  # an error path too
    call(api_event("DELETE", "/v1/me"))
    captured = capsys.readouterr()
    everything = captured.out + captured.err + caplog.text
    assert "fragment processed" in everything  # we did capture the logs
    for piece in FRAGMENTS_OF_SPEECH:
        assert piece.lower() not in everything.lower(), piece
