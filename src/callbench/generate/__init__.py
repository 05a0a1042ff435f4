"""Suites built by code: task generators whose expected results come from an executable policy
model (`callbench generate ...`)."""
