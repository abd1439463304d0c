"""One abstract test class per port; each adapter's test module subclasses it (fake and real)."""
