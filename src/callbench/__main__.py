"""`python -m callbench`: the same command as `callbench`."""

from .cli import main

if __name__ == "__main__":
    main()
