// SPDX-License-Identifier: GPL-2.0
// librdmacm connection for the rpcrdma tools.
#include "verbs.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_verbs.h>

#include <cerrno>
#include <cstring>

namespace rpcrdma::tools {
namespace {

bool fail(std::string* err, const char* what) {
  *err = std::string(what) + ": " + strerror(errno);
  return false;
}

ibv_qp_init_attr qp_attr(const Buffers& b) {
  ibv_qp_init_attr a = {};
  a.cap.max_send_wr = 4;
  a.cap.max_recv_wr = b.nrecv;
  a.cap.max_send_sge = 1;
  a.cap.max_recv_sge = 1;
  a.qp_type = IBV_QPT_RC;
  a.sq_sig_all = 1;
  return a;
}

std::string name_of(rdma_cm_id* id) {
  char host[INET6_ADDRSTRLEN] = "?";
  const sockaddr* sa = rdma_get_peer_addr(id);
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, host, sizeof(host));
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, host, sizeof(host));
  return host;
}

PrivateData private_data_of(const rdma_conn_param& p) {
  return decode_private_data(xdr::Bytes(static_cast<const uint8_t*>(p.private_data), p.private_data_len));
}

rdma_conn_param conn_param(const std::array<uint8_t, 8>& pd) {
  rdma_conn_param p = {};
  p.private_data = pd.data();
  p.private_data_len = pd.size();
  p.responder_resources = 1;
  p.initiator_depth = 1;
  return p;
}

}  // namespace

Conn::~Conn() {
  if (!id_) return;
  // Only a connection that was made: on an id whose connect was refused,
  // rdma_disconnect() of a synchronous id waits for an event that never
  // comes (rpcrdma-ping to a port where nothing listened hung).
  if (connected_) rdma_disconnect(id_);
  if (recv_mr_) rdma_dereg_mr(recv_mr_);
  if (send_mr_) rdma_dereg_mr(send_mr_);
  rdma_destroy_ep(id_);
}

bool Conn::setup(const Buffers& b, std::string* err) {
  b_ = b;
  recv_.assign(size_t{b.nrecv} * b.recv_size, 0);
  send_.assign(b.send_size, 0);
  recv_mr_ = rdma_reg_msgs(id_, recv_.data(), recv_.size());
  send_mr_ = rdma_reg_msgs(id_, send_.data(), send_.size());
  if (!recv_mr_ || !send_mr_) return fail(err, "rdma_reg_msgs");
  for (uint32_t i = 0; i < b.nrecv; i++)
    if (!post_recv(i, err)) return false;
  return true;
}

bool Conn::post_recv(uint32_t slot, std::string* err) {
  uint8_t* p = recv_.data() + size_t{slot} * b_.recv_size;
  if (rdma_post_recv(id_, reinterpret_cast<void*>(uintptr_t{slot}), p, b_.recv_size, recv_mr_))
    return fail(err, "rdma_post_recv");
  return true;
}

Conn* Conn::connect(const char* host, const char* port, const PrivateData& ours, const Buffers& b,
                    std::string* err) {
  rdma_addrinfo hints = {}, *res = nullptr;
  hints.ai_port_space = RDMA_PS_TCP;
  const int rc = rdma_getaddrinfo(host, port, &hints, &res);
  if (rc) {
    *err = std::string("rdma_getaddrinfo ") + host + ":" + port + ": " + gai_strerror(rc);
    return nullptr;
  }
  Conn* c = new Conn;
  ibv_qp_init_attr attr = qp_attr(b);
  const int ep = rdma_create_ep(&c->id_, res, nullptr, &attr);
  rdma_freeaddrinfo(res);
  if (ep) {
    fail(err, "rdma_create_ep");
    c->id_ = nullptr;
    delete c;
    return nullptr;
  }
  const std::array<uint8_t, 8> pd = encode_private_data(ours);
  rdma_conn_param p = conn_param(pd);
  if (!c->setup(b, err) || (rdma_connect(c->id_, &p) && !fail(err, "rdma_connect"))) {
    delete c;
    return nullptr;
  }
  c->connected_ = true;
  // The accept's private data (rdma_connect() consumed the ESTABLISHED event).
  if (c->id_->event) c->peer_ = private_data_of(c->id_->event->param.conn);
  c->peer_name_ = name_of(c->id_);
  return c;
}

bool Conn::complete(const char* what, std::string* err) {
  ibv_wc wc;
  if (rdma_get_send_comp(id_, &wc) <= 0) return fail(err, "rdma_get_send_comp");
  if (wc.status != IBV_WC_SUCCESS) {
    *err = std::string(what) + " completed with " + ibv_wc_status_str(wc.status);
    return false;
  }
  return true;
}

bool Conn::send(size_t len, std::string* err) {
  if (rdma_post_send(id_, nullptr, send_.data(), len, send_mr_, 0)) return fail(err, "rdma_post_send");
  return complete("Send", err);
}

ibv_mr* Conn::reg(void* p, size_t len, int access, std::string* err) {
  ibv_mr* mr = ibv_reg_mr(id_->pd, p, len, IBV_ACCESS_LOCAL_WRITE | access);
  if (!mr) fail(err, "ibv_reg_mr");
  return mr;
}

bool Conn::read(void* local, size_t len, ibv_mr* mr, uint64_t raddr, uint32_t rkey, std::string* err) {
  if (rdma_post_read(id_, nullptr, local, len, mr, 0, raddr, rkey)) return fail(err, "rdma_post_read");
  return complete("RDMA READ", err);
}

bool Conn::write(const void* local, size_t len, ibv_mr* mr, uint64_t raddr, uint32_t rkey, std::string* err) {
  if (rdma_post_write(id_, nullptr, const_cast<void*>(local), len, mr, 0, raddr, rkey))
    return fail(err, "rdma_post_write");
  return complete("RDMA WRITE", err);
}

int Conn::recv(xdr::Bytes* msg, int timeout_ms, std::string* err) {
  ibv_wc wc;
  for (;;) {
    int n = ibv_poll_cq(id_->recv_cq, 1, &wc);
    if (n == 0) {
      if (ibv_req_notify_cq(id_->recv_cq, 0)) {
        fail(err, "ibv_req_notify_cq");
        return 0;
      }
      n = ibv_poll_cq(id_->recv_cq, 1, &wc);
    }
    if (n < 0) {
      fail(err, "ibv_poll_cq");
      return 0;
    }
    if (n == 1) break;
    pollfd pfd = {id_->recv_cq_channel->fd, POLLIN, 0};
    const int r = poll(&pfd, 1, timeout_ms);
    if (r == 0) return -1;
    if (r < 0) {
      fail(err, "poll");
      return 0;
    }
    ibv_cq* cq;
    void* ctx;
    if (ibv_get_cq_event(id_->recv_cq_channel, &cq, &ctx)) {
      fail(err, "ibv_get_cq_event");
      return 0;
    }
    ibv_ack_cq_events(cq, 1);
  }
  if (wc.status == IBV_WC_WR_FLUSH_ERR) return 0;  // the connection ended
  if (wc.status != IBV_WC_SUCCESS) {
    *err = std::string("receive completed with ") + ibv_wc_status_str(wc.status);
    return 0;
  }
  held_ = int64_t(wc.wr_id);
  *msg = xdr::Bytes(recv_.data() + size_t(held_) * b_.recv_size, wc.byte_len);
  return 1;
}

bool Conn::release(std::string* err) {
  if (held_ < 0) return true;
  const uint32_t slot = uint32_t(held_);
  held_ = -1;
  return post_recv(slot, err);
}

Listener::~Listener() {
  if (id_) rdma_destroy_ep(id_);
}

Listener* Listener::listen(const char* addr, const char* port, std::string* err) {
  rdma_addrinfo hints = {}, *res = nullptr;
  hints.ai_flags = RAI_PASSIVE;
  hints.ai_port_space = RDMA_PS_TCP;
  const int rc = rdma_getaddrinfo(addr, port, &hints, &res);
  if (rc) {
    *err = std::string("rdma_getaddrinfo ") + (addr ? addr : "*") + ":" + port + ": " + gai_strerror(rc);
    return nullptr;
  }
  Listener* l = new Listener;
  Buffers b;
  ibv_qp_init_attr attr = qp_attr(b);
  attr.cap.max_recv_wr = 64;
  const int ep = rdma_create_ep(&l->id_, res, nullptr, &attr);
  rdma_freeaddrinfo(res);
  if (ep || rdma_listen(l->id_, 8)) {
    fail(err, ep ? "rdma_create_ep" : "rdma_listen");
    delete l;
    return nullptr;
  }
  return l;
}

Conn* Listener::accept(const PrivateData& ours, const Buffers& b, std::string* err) {
  if (b.nrecv > 64) {
    *err = "at most 64 receive buffers";
    return nullptr;
  }
  rdma_cm_id* id;
  if (rdma_get_request(id_, &id)) {
    fail(err, "rdma_get_request");
    return nullptr;
  }
  Conn* c = new Conn;
  c->id_ = id;
  c->peer_ = private_data_of(id->event->param.conn);
  c->peer_name_ = name_of(id);
  const std::array<uint8_t, 8> pd = encode_private_data(ours);
  rdma_conn_param p = conn_param(pd);
  if (!c->setup(b, err) || (rdma_accept(id, &p) && !fail(err, "rdma_accept"))) {
    delete c;
    return nullptr;
  }
  c->connected_ = true;
  return c;
}

}  // namespace rpcrdma::tools
