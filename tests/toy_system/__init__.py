"""A toy fifth system, ``echo``, made of its own small modules: one registry entry shows it everywhere.

It asks one model whether a text shouts. ``tests/unit/test_fifth_system.py`` registers it.
"""
