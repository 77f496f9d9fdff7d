MATCH (s:Summary {axpre: $axpre})-[e:SUMMARY_EDGE]->(t:Summary {axpre: $axpre})
RETURN s.sid AS source, t.sid AS target, e.count AS count, e.length AS length
