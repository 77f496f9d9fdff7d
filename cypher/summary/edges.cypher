// Summary edges S -> T: element pairs parent in S, child in T; count and child length
MATCH (s:Summary {axpre: $axpre})<-[:IN_PARTITION]-(p:Unit)-[:CHILD]->(c:Unit)
      -[:IN_PARTITION]->(t:Summary {axpre: $axpre})
WITH s, t, count(*) AS n, sum(c.length) AS len
MERGE (s)-[e:SUMMARY_EDGE]->(t)
SET e.count = n, e.length = len
RETURN count(*) AS edges
