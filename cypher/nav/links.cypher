// One-step link transitions from some units: P(x -> z) = (links x -> z) / (out-links of x),
// multiplicity counted (written without re-matching x after an aggregation, which
// LadybugDB 0.22 cannot evaluate; the relationship named and carried on:
// FalkorDB 4.16 counts parallel edges once when it is not)
UNWIND $sources AS sid
MATCH (x:Unit {uid: sid})-[l:LINK]->(z:Unit)
WITH x, z.uid AS t, l
WITH x, collect(t) AS targets
UNWIND targets AS t
WITH x.uid AS source, t AS target, size(targets) AS out, count(*) AS n
RETURN source, target, 1.0 * n / out AS p
