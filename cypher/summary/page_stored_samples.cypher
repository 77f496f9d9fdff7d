// The sample elements summary/number.cypher kept in every partition of some
// stored summaries (null for a summary built before it kept them): uids and
// places in load order (document seq * 2^32 + pre)
MATCH (s:Summary)
WHERE s.axpre IN $names
RETURN s.axpre AS axpre, s.sid AS sid, s.samples AS uids, s.sample_places AS places
