// Resolved LINK edges as (source seq, source pre, target seq, target pre) in link order
MATCH (s:Unit)-[l:LINK]->(t:Unit)
RETURN s.seq AS sseq, s.pre AS spre, t.seq AS tseq, t.pre AS tpre, l.lseq AS lseq
ORDER BY lseq
