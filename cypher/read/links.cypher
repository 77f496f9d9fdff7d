// Every LINK edge as (source document, pre, target document, pre), in load order
MATCH (s:Unit)-[l:LINK]->(t:Unit)
RETURN s.doc AS sdoc, s.pre AS spre, t.doc AS tdoc, t.pre AS tpre, l.lseq AS lseq
ORDER BY lseq
