"""Statistics on stored results: agreement now; bootstrap, paired comparison and intervals later."""

from .agreement import Agreement, agreement, cohens_kappa

__all__ = ["Agreement", "agreement", "cohens_kappa"]
