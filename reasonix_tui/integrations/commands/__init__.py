"""CLI command modules. Each defines ``register(reg: Registry)``; see :mod:`..cli`."""
