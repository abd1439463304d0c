"""Marquez's read API over provgraph's read model: one router module per area (namespaces,
datasets, jobs and runs, search), Marquez's ids and names (`ids`), its shapes (`shapes`), and
the route class that keeps encoded `/` inside names (`paths`). Mounted by `http/app.py`."""
