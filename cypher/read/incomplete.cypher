// Documents of a load that did not finish (or is running); replaces: the name
// of the stored document one replaces while it is written under a name of its own
MATCH (d:Document)
WHERE NOT d.complete
RETURN d.name AS name, d.seq AS seq, d.replaces AS replaces
