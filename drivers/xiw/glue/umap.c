// SPDX-License-Identifier: GPL-2.0
/*
 * Memory shared with user space: the siw ABI's SQ, RQ and CQ rings.
 *
 * A ring is vmalloc_user() memory with an rdma_user_mmap_entry; user space
 * maps it at the entry's key (the offset rdma-core passes to mmap()). The
 * memory lives as long as the entry: destroying the queue removes the
 * entry, and the core calls xiw_mmap_free() once no mapping is left, so a
 * process that keeps a ring mapped never sees it freed underneath.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "xiw.h"

struct xiw_umap {
	struct rdma_user_mmap_entry entry;
	void *addr;
};

/* Zeroed ring memory of @len octets for @uctx; its mmap key in @key. */
void *xiw_umap_alloc(struct ib_ucontext *uctx, size_t len, u64 *key,
		     struct rdma_user_mmap_entry **entry)
{
	struct xiw_umap *m = kzalloc(sizeof(*m), GFP_KERNEL);
	int rc;

	if (!m)
		return NULL;
	m->addr = vmalloc_user(PAGE_ALIGN(len));
	if (!m->addr) {
		kfree(m);
		return NULL;
	}
	rc = rdma_user_mmap_entry_insert(uctx, &m->entry, PAGE_ALIGN(len));
	if (rc) {
		vfree(m->addr);
		kfree(m);
		return NULL;
	}
	*key = rdma_user_mmap_get_offset(&m->entry);
	*entry = &m->entry;
	return m->addr;
}

/* The queue is gone: the memory goes when its last mapping does. */
void xiw_umap_remove(struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
}

int xiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e = rdma_user_mmap_entry_get(uctx, vma);
	int rc;

	if (!e)
		return -EINVAL;
	rc = remap_vmalloc_range(vma, container_of(e, struct xiw_umap,
						   entry)->addr, 0);
	rdma_user_mmap_entry_put(e);
	return rc;
}

void xiw_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct xiw_umap *m = container_of(e, struct xiw_umap, entry);

	vfree(m->addr);
	kfree(m);
}
