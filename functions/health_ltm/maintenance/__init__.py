"""Maintenance: consolidation and forgetting policies, run on a schedule for every due user."""
