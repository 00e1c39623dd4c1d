"""Write path: quality filter, normalisation, offline rules, critical-mention detection."""
