"""Cypher queries shipped as package data (``graphprum.cypher``)."""
