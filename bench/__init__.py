"""Benchmarks (`make bench`), evaluation (`make eval`) and the load run (`make load`)."""
