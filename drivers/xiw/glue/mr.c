// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and the memory they name.
 *
 * An STag is a 24-bit index into the device's table and an 8-bit key
 * (RFC 5040 section 2.1). Three kinds exist:
 *  - DMA MRs: kernel protection domains take one for their local DMA lkey
 *    (and, asked for it, the unsafe global rkey). Addresses are kernel
 *    virtual addresses: the device does virtual DMA. Key 0, always valid.
 *  - User MRs: ib_umem_get() pins the pages (and charges them against
 *    RLIMIT_MEMLOCK); the page list maps the process's addresses.
 *  - Fast-register MRs (FRWR): alloc_mr and map_mr_sg collect a page list;
 *    IB_WR_REG_MR, in send queue order, makes the STag valid with a key,
 *    access rights, IOVA and length; IB_WR_LOCAL_INV, a Send with
 *    Invalidate or a READ_WITH_INV makes it invalid again.
 * All access goes through xiw_mr_check() and xiw_mem_copy() under RCU:
 * MRs and their page lists are freed after a grace period.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "xiw.h"

static struct xiw_mr *xiw_mr_new(struct ib_pd *pd, u32 max_pages)
{
	struct xiw_device *xdev = to_xiw_dev(pd->device);
	struct xiw_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	int rc;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	if (max_pages) {
		mr->pages = kvcalloc(max_pages, sizeof(u64), GFP_KERNEL);
		if (!mr->pages) {
			kfree(mr);
			return ERR_PTR(-ENOMEM);
		}
		mr->max_pages = max_pages;
	}
	rc = xa_alloc(&xdev->mrs, &mr->index, mr, XA_LIMIT(1, 0xffffff),
		      GFP_KERNEL);
	if (rc) {
		kvfree(mr->pages);
		kfree(mr);
		return ERR_PTR(rc);
	}
	mr->ibmr.lkey = mr->index << 8;
	mr->ibmr.rkey = mr->index << 8;
	return mr;
}

struct ib_mr *xiw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct xiw_mr *mr = xiw_mr_new(pd, 0);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->valid = true;
	return &mr->ibmr;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_get_dma_mr);

struct ib_mr *xiw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct xiw_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > XIW_MAX_FRWR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = xiw_mr_new(pd, max_num_sg);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->frwr = true;
	return &mr->ibmr;
}

static int xiw_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int xiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);
	int n;

	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, xiw_set_page);
	/* Where the first octet sits in the first page. */
	if (mr->npages)
		mr->fbo = ibmr->iova - mr->pages[0];
	return n;
}

static void xiw_mr_free(struct rcu_head *rcu)
{
	struct xiw_mr *mr = container_of(rcu, struct xiw_mr, rcu);

	kvfree(mr->pages);
	kfree(mr);
}

int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);

	xa_erase(&to_xiw_dev(ibmr->device)->mrs, mr->index);
	if (!mr->umem) {
		call_rcu(&mr->rcu, xiw_mr_free);
		return 0;
	}
	/* Unpinning sleeps: wait out the readers here instead. */
	synchronize_rcu();
	ib_umem_release(mr->umem);
	xiw_mr_free(&mr->rcu);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_dereg_mr);

struct ib_mr *xiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 virt, int access, struct ib_udata *udata)
{
	struct siw_uresp_reg_mr uresp = {};
	struct siw_ureq_reg_mr ureq = {};
	struct sg_page_iter piter;
	struct ib_umem *umem;
	struct xiw_mr *mr;
	u32 n = 0;
	int rc;

	if (!len || len > XIW_MAX_USER_MR || udata->outlen < sizeof(uresp))
		return ERR_PTR(-EINVAL);
	if (udata->inlen >= sizeof(ureq) &&
	    ib_copy_from_udata(&ureq, udata, sizeof(ureq)))
		return ERR_PTR(-EFAULT);
	umem = ib_umem_get(pd->device, start, len, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = xiw_mr_new(pd, ib_umem_num_pages(umem));
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	/* Virtual DMA: the kernel reaches each pinned page directly. */
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0)
		mr->pages[n++] = (uintptr_t)page_address(sg_page_iter_page(&piter));
	mr->npages = n;
	mr->fbo = start & ~PAGE_MASK;
	mr->page_shift = PAGE_SHIFT;
	mr->iova = virt;
	mr->length = len;
	mr->access = access;
	mr->key = ureq.stag_key;
	mr->ibmr.lkey = mr->index << 8 | mr->key;
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->valid = true;
	uresp.stag = mr->ibmr.lkey;
	rc = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (rc) {
		xiw_dereg_mr(&mr->ibmr, udata);
		return ERR_PTR(rc);
	}
	return &mr->ibmr;
}

/*
 * IB_WR_REG_MR, when the send queue reaches it: FRWR STag @stag becomes
 * valid for @pd with @access over what ib_map_mr_sg() mapped. 0, or
 * -EINVAL if it names no invalid FRWR MR of @pd with pages.
 */
int xiw_mr_register(struct xiw_device *xdev, struct ib_pd *pd, u32 stag,
		    int access)
{
	struct xiw_mr *mr;
	int rc = -EINVAL;

	rcu_read_lock();
	mr = xa_load(&xdev->mrs, stag >> 8);
	if (mr && mr->frwr && mr->ibmr.pd == pd && !READ_ONCE(mr->valid) &&
	    mr->npages) {
		mr->key = stag & 0xff;
		mr->access = access;
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		mr->page_shift = ilog2(mr->ibmr.page_size);
		smp_wmb();	/* the registration before the STag is valid */
		WRITE_ONCE(mr->valid, true);
		rc = 0;
	}
	rcu_read_unlock();
	return rc;
}

/*
 * Invalidates FRWR STag @stag on behalf of @pd: 0, or XIW_RX_* when it
 * cannot be (RFC 5040 section 6.2: it must exist, be an STag this stream
 * may use, and be valid).
 */
int xiw_mr_invalidate(struct xiw_device *xdev, u32 stag, struct ib_pd *pd)
{
	struct xiw_mr *mr;
	int rc = 0;

	rcu_read_lock();
	mr = xa_load(&xdev->mrs, stag >> 8);
	if (!mr || !mr->frwr || (stag & 0xff) != mr->key ||
	    !READ_ONCE(mr->valid))
		rc = XIW_RX_CANNOT_INVALIDATE;
	else if (mr->ibmr.pd != pd)
		rc = XIW_RX_NOT_IN_STREAM;
	else
		WRITE_ONCE(mr->valid, false);
	rcu_read_unlock();
	return rc;
}

static struct xiw_mr *xiw_mr_find(struct xiw_device *xdev, u32 stag)
{
	struct xiw_mr *mr = xa_load(&xdev->mrs, stag >> 8);

	if (!mr || (stag & 0xff) != mr->key || !READ_ONCE(mr->valid))
		return NULL;
	smp_rmb();	/* valid, then the registration */
	return mr;
}

static bool xiw_mr_covers(const struct xiw_mr *mr, u64 addr, u64 len)
{
	if (addr + len < addr)
		return false;
	if (!mr->pages)
		return true;	/* a DMA MR spans all memory */
	return addr >= mr->iova && addr + len <= mr->iova + mr->length;
}

/* 0, or the XIW_RX_* reason why @mr (NULL: none) may not serve the access. */
static int xiw_mr_refusal(const struct xiw_mr *mr, struct ib_pd *pd,
			  int access, u64 addr, u64 len)
{
	if (!mr)
		return XIW_RX_STAG_INVALID;
	if (mr->ibmr.pd != pd)
		return XIW_RX_NOT_IN_STREAM;
	if ((mr->access & access) != access)
		return XIW_RX_ACCESS;
	if (!xiw_mr_covers(mr, addr, len))
		return XIW_RX_BOUNDS;
	return 0;
}

/*
 * The kernel address of octet @pos (counted from the first page's start)
 * of an MR with a page list, and in *@room how many octets of its MR page
 * are left from there.
 */
static void *xiw_mr_page_va(const struct xiw_mr *mr, u64 pos, u64 *room)
{
	u64 off = pos & ((1ULL << mr->page_shift) - 1);

	*room = (1ULL << mr->page_shift) - off;
	return (void *)(uintptr_t)(mr->pages[pos >> mr->page_shift] + off);
}

/*
 * May @stag be used by @pd for @access over [addr, addr + len)? Returns 0
 * or the XIW_RX_* reason to refuse it.
 */
int xiw_mr_check(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, u64 len)
{
	int rc;

	rcu_read_lock();
	rc = xiw_mr_refusal(xiw_mr_find(xdev, stag), pd, access, addr, len);
	rcu_read_unlock();
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_mr_check);

/*
 * Copies @len octets between @buf and [addr, addr + len) of the memory
 * @stag names: into the memory if @to_mem. @pd must own the MR and it must
 * grant @access. All of it is checked on every copy: the STag may have been
 * invalidated, and its index reused, since it was last looked at, and a
 * user ring's SGEs are seen here first. 0 or -EFAULT.
 */
int xiw_mem_copy(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, void *buf, u32 len, bool to_mem)
{
	struct xiw_mr *mr;
	u64 pos, room;
	void *p;
	u32 n;
	int rc = 0;

	rcu_read_lock();
	mr = xiw_mr_find(xdev, stag);
	if (xiw_mr_refusal(mr, pd, access, addr, len)) {
		rc = -EFAULT;
	} else if (!mr->pages) {
		p = (void *)(uintptr_t)addr;
		memcpy(to_mem ? p : buf, to_mem ? buf : p, len);
	} else {
		pos = mr->fbo + (addr - mr->iova);
		while (len) {
			p = xiw_mr_page_va(mr, pos, &room);
			n = min_t(u64, len, room);
			memcpy(to_mem ? p : buf, to_mem ? buf : p, n);
			buf += n;
			pos += n;
			len -= n;
		}
	}
	rcu_read_unlock();
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_mem_copy);

/*
 * A gathering send's view of [addr, addr + len) of @stag's memory: points
 * *@p at its first octet and returns how many follow in the same page (at
 * most @len), holding a reference on that page in *@page, so that the
 * octets stay readable while TCP sends them even if the MR goes away.
 * -EFAULT where xiw_mem_copy() would fail; -EOPNOTSUPP for memory that
 * has no counted page in the kernel's direct map (the caller copies).
 */
int xiw_mem_view(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, u32 len, const void **p,
		 struct page **page)
{
	struct xiw_mr *mr;
	u64 room = U64_MAX;
	void *va;
	int rc;

	rcu_read_lock();
	mr = xiw_mr_find(xdev, stag);
	if (xiw_mr_refusal(mr, pd, access, addr, len)) {
		rc = -EFAULT;
		goto out;
	}
	if (!mr->pages)
		va = (void *)(uintptr_t)addr;
	else
		va = xiw_mr_page_va(mr, mr->fbo + (addr - mr->iova), &room);
	/*
	 * Not in the direct map, or a page without a count of its own (the
	 * tail of a high-order allocation without __GFP_COMP): no reference
	 * can be taken on it.
	 */
	if (!virt_addr_valid(va) || page_count(virt_to_page(va)) < 1) {
		rc = -EOPNOTSUPP;
		goto out;
	}
	*page = virt_to_page(va);
	get_page(*page);
	*p = va;
	rc = min_t(u64, min_t(u64, len, room), PAGE_SIZE - offset_in_page(va));
out:
	rcu_read_unlock();
	return rc;
}
