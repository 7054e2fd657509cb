"""Settings the papers leave open and we had to assume, shared by the figure modules and their charts."""

TABLE2_EPSILON = 1.0  # PriSTE Table 2 does not state ε, α₀ or the event; assumed: ε = 1, PRESENCE(S=[1:10], T=[4:8])
