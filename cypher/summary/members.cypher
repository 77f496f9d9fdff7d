MATCH (u:Unit)-[:IN_PARTITION]->(s:Summary {axpre: $axpre})
RETURN u.seq AS seq, u.pre AS pre, s.sid AS sid
