// One-step link transitions from some units: P(x -> z) = (links x -> z) / (out-links of x)
UNWIND $sources AS sid
MATCH (x:Unit {uid: sid})-[:LINK]->(:Unit)
WITH x, count(*) AS out
MATCH (x)-[:LINK]->(z:Unit)
WITH x, z, out, count(*) AS n
RETURN x.uid AS source, z.uid AS target, toFloat(n) / out AS p
