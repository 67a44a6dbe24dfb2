"""More random ops (``tfops.op.random``): RandomShuffle, Multinomial, stateless random."""
