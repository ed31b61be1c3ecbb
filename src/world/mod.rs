//! Kernel objects (mm, VMA, address_space, anon_vma, anon_vma_chain) in arenas with small ids.
