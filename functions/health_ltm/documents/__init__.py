"""Documented data (lab results, uploaded documents, appointments) from other services."""
