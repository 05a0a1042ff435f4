"""The utility-billing domain of the services backend (issue 14)."""
