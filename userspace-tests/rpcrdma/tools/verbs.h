// SPDX-License-Identifier: GPL-2.0
// One RC connection through librdmacm for the rpcrdma tools: the RFC 8797
// private data on connect and accept, receive buffers posted before the
// peer can send, Sends copied from one registered buffer, receives waited
// for with a timeout.
#pragma once

#include <rdma/rdma_cma.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rpcrdma/private_data.h"
#include "rpcrdma/xdr.h"

namespace rpcrdma::tools {

struct Buffers {
  uint32_t nrecv = 8;  // receive buffers posted (the credits we can take)
  uint32_t recv_size = 4096;
  uint32_t send_size = 4096;
};

class Conn {
 public:
  ~Conn();
  // Connects to @host:@port with @ours as private data.
  static Conn* connect(const char* host, const char* port, const PrivateData& ours, const Buffers& b,
                       std::string* err);
  const PrivateData& peer() const { return peer_; }
  const std::string& peer_name() const { return peer_name_; }

  uint8_t* send_buf() { return send_.data(); }
  size_t send_room() const { return send_.size(); }
  // Sends the first @len octets of send_buf() and waits for the Send to
  // complete.
  bool send(size_t len, std::string* err);
  // 1: a message, a view valid until release(); 0: the connection ended
  // (a flushed receive); -1: nothing within @timeout_ms (-1: no limit).
  int recv(xdr::Bytes* msg, int timeout_ms, std::string* err);
  bool release(std::string* err);

  // Memory the peer may reach (@access: IBV_ACCESS_REMOTE_*), or that an
  // RDMA READ lands in; ibv_dereg_mr() it before the connection goes.
  ibv_mr* reg(void* p, size_t len, int access, std::string* err);
  // RDMA READ of @len octets from the peer's (@rkey, @raddr) into @local
  // (in @mr), or RDMA WRITE from @local there; each waits to complete.
  bool read(void* local, size_t len, ibv_mr* mr, uint64_t raddr, uint32_t rkey, std::string* err);
  bool write(const void* local, size_t len, ibv_mr* mr, uint64_t raddr, uint32_t rkey, std::string* err);

 private:
  bool complete(const char* what, std::string* err);
  friend class Listener;
  Conn() = default;
  bool setup(const Buffers& b, std::string* err);
  bool post_recv(uint32_t slot, std::string* err);

  rdma_cm_id* id_ = nullptr;
  std::vector<uint8_t> recv_, send_;
  ibv_mr* recv_mr_ = nullptr;
  ibv_mr* send_mr_ = nullptr;
  Buffers b_;
  int64_t held_ = -1;       // the slot recv() last returned
  bool connected_ = false;  // rdma_connect() or rdma_accept() succeeded
  PrivateData peer_;
  std::string peer_name_;
};

class Listener {
 public:
  ~Listener();
  static Listener* listen(const char* addr, const char* port, std::string* err);
  // The next connection, accepted with @ours as private data.
  Conn* accept(const PrivateData& ours, const Buffers& b, std::string* err);

 private:
  Listener() = default;
  rdma_cm_id* id_ = nullptr;
};

}  // namespace rpcrdma::tools
