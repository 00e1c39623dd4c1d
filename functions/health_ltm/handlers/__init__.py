"""Thin Lambda entry points: parse, call one domain function, respond."""
