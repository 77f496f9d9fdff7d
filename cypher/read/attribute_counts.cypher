// Attribute name counts of every stored document, in load order
MATCH (d:Document)
WHERE d.complete
RETURN d.anames AS anames
ORDER BY d.seq
