"""The audit report as text and HTML, and the score sheet as text.

Above the checks and the stacking detector: it renders what they found.
"""
