"""lmdk — landmark privacy for time series: mechanisms, budget schemes, accounting, analysis."""
__version__ = "0.1.0"
