"""`callbench generate utility`: the utility-billing exam, built recursively from single requests
and admitted by the policy model."""
