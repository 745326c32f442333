// SPDX-License-Identifier: Apache-2.0
// A directory store built beside its target (`<path>.<unique>.partial/`) and moved into place
// when complete, so that a failed write leaves the old store, or nothing, at the path.
#pragma once

#include <string>

namespace chunked::io {

class StoreDir {
public:
  /// ValueError naming `target` when it exists and `overwrite` is false; chunked::Error naming the
  /// directory when it cannot be created.
  StoreDir(std::string target, bool overwrite);
  /// Writes into the directory `temp` that another process created for `target` (the ranks of a
  /// cluster writing one store): that process removes or commits it, this one never does.
  /// chunked::Error when `temp` is not a directory here (`what` says why it should be).
  StoreDir(std::string target, std::string temp, const std::string& what);
  StoreDir(const StoreDir&) = delete;
  StoreDir& operator=(const StoreDir&) = delete;
  /// Removes the temporary directory unless commit() moved it into place or another process owns
  /// it.
  ~StoreDir();

  /// The directory to write into.
  const std::string& dir() const { return temp_; }
  /// `dir()/key`, creating the key's parent directories ("c/0/1" has two).
  std::string file_for(const std::string& key) const;
  /// Moves the directory to the target; a store already there is replaced (moved aside first,
  /// then removed).
  void commit();

private:
  std::string target_;
  std::string temp_;
  bool overwrite_;
  bool committed_ = false;
  bool owned_ = true;
};

} // namespace chunked::io
