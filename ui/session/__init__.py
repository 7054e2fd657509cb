"""The session's state: every session-state key and the URL sync (``state``), the caches of the core's results
(``cache``, ``cache_loss``; ``cache_scope.bounded_cache`` keeps anything derived from an upload in its own session,
``cache_scope.session_memo``), the neighbouring relation of the view (``relation``), the saved configuration
(``config``, with the planner's target in ``plan_target``) and giving freed memory back after an upload (``memory``).
No widgets and no charts: pages, ``ui.widgets`` and ``ui.charts`` draw them (and import this package, never the
other way round)."""
