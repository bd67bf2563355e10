"""/layout node records: accessibility nodes as records and tree filters (``axtree``), records
from a DOM snapshot when there is no accessibility tree (``dom_fallback``), and the incremental
read of the subtrees a change touched (``patch``, page script in js/) put back in pre-order
(``splice``)."""
