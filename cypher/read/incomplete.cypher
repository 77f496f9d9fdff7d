// Documents left incomplete by an interrupted (or running) load
MATCH (d:IncompleteDocument)
RETURN d.name AS name, d.seq AS seq
