"""Navigation models: how a user moves from a unit to the units around it."""
