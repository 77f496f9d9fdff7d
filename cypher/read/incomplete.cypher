// Documents of a load that did not finish (or is running)
MATCH (d:Document)
WHERE NOT d.complete
RETURN d.name AS name, d.seq AS seq
