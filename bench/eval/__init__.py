"""`make eval`: the memory measured level by level (see __main__.py and docs/eval/latest.md)."""
