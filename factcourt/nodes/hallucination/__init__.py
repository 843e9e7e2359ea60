"""Stages of the hallucination debate (IMPD-MACD): gather, team turns, judge, refiner."""
