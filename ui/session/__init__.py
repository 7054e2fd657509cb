"""The session's state: every session-state key and the URL sync (``state``), the caches of the core's results
(``cache``, ``cache_loss``; ``cache_scope.bounded_cache`` keeps anything derived from an upload in its own session,
``cache_scope.session_memo``), the saved configuration (``config``, with the planner's target in ``plan_target``)
and giving freed memory back after an upload (``memory``). No widgets: pages and ``ui.widgets`` draw them."""
