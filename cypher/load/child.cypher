// CHILD edges parent -> child
UNWIND $edges AS e
MATCH (p:Unit {uid: e.p})
MATCH (c:Unit {uid: e.c})
MERGE (p)-[:CHILD]->(c)
