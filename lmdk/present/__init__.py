"""Presentation around the core, for the app, the reports and the generated scripts — not the papers' maths.

:mod:`~lmdk.present.views` (summaries of releases, landmark sets in links), :mod:`~lmdk.present.views_loss`
(the temporal-loss page's comparisons), :mod:`~lmdk.present.headlines` (plain-language sentences),
:mod:`~lmdk.present.population` (the Population page's comparisons),
:mod:`~lmdk.present.release` and :mod:`~lmdk.present.loss` (one series' release and loss as the command
line computes them), :mod:`~lmdk.present.report` (offline HTML reports) and :mod:`~lmdk.present.reproduce`
('Reproduce in Python' scripts). Everything here calls the core; nothing in the core imports this package.
"""
