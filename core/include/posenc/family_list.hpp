// posenc/family_list.hpp: the one list of encoding families, in the order the
// page lists them. Each line names a family's namespace, which is also the
// name of its header and source (core/include/posenc/<name>.hpp,
// core/src/<name>.cpp): those define `<name>::family()`, its descriptor
// (family.hpp), and `<name>::training()`, what it does in train()
// (train_slots.hpp), and `<name>::formula()`, its formula in TeX (family.hpp Formula,
// read by describe()). Adding a family is its two files and one line here; the
// spec `type` is the descriptor's (nope's is "none"), and everything else
// (describe(), the page's family list, the messages' lists of types) reads it
// from families().
//
// No include guard: a file defines POSENC_FAMILY(name), includes this, and
// undefines it (registry.cpp: families() and train::training_of(); describe.cpp: formula_of).
POSENC_FAMILY(sinusoidal)
POSENC_FAMILY(learned)
POSENC_FAMILY(nope)
POSENC_FAMILY(rope)
POSENC_FAMILY(xpos)
POSENC_FAMILY(alibi)
POSENC_FAMILY(t5)
POSENC_FAMILY(shaw)
POSENC_FAMILY(transformer_xl)
POSENC_FAMILY(kerple)
POSENC_FAMILY(deberta)
POSENC_FAMILY(fire)
POSENC_FAMILY(cope)
POSENC_FAMILY(fox)
POSENC_FAMILY(pope)
POSENC_FAMILY(fope)
