// SPDX-License-Identifier: Apache-2.0
// Directory stores written aside and moved into place.
#include "io/store_dir.hpp"

#include "io/file_io.hpp"

#include <chunked/core/error.hpp>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace chunked::io {

namespace fs = std::filesystem;

StoreDir::StoreDir(std::string target, bool overwrite)
    : target_(std::move(target)), overwrite_(overwrite) {
  while (!target_.empty() && target_.size() > 1 && target_.back() == '/')
    target_.pop_back();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target_, ec)) && !overwrite)
    throw ValueError("to_zarr: '" + target_ +
                     "' already exists (pass ZarrOptions::overwrite = true to replace it)");
  temp_ = target_ + "." + unique_suffix() + ".partial";
  if (!fs::create_directory(temp_, ec) || ec)
    throw Error("cannot create the directory '" + temp_ +
                "': " + (ec ? ec.message() : std::string("it exists")));
}

StoreDir::StoreDir(std::string target, std::string temp, const std::string& what)
    : target_(std::move(target)), temp_(std::move(temp)), overwrite_(false), owned_(false) {
  std::error_code ec;
  if (!fs::is_directory(temp_, ec))
    throw Error("the directory '" + temp_ + "' is not there: " + what);
}

StoreDir::~StoreDir() {
  if (!committed_ && owned_) {
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }
}

std::string StoreDir::file_for(const std::string& key) const {
  const fs::path p = fs::path(temp_) / key;
  if (key.find('/') != std::string::npos) {
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    // Tasks writing chunks under one parent race to create it: existing is success.
    if (ec && !fs::is_directory(p.parent_path()))
      throw Error("cannot create the directory '" + p.parent_path().string() +
                  "': " + ec.message());
  }
  return p.string();
}

void StoreDir::commit() {
  if (!owned_)
    throw Error("'" + temp_ + "' is committed by the process that created it");
  std::error_code ec;
  std::string aside;
  if (fs::exists(fs::symlink_status(target_, ec))) {
    if (!overwrite_)
      throw ValueError("to_zarr: '" + target_ + "' appeared while the store was written");
    aside = target_ + "." + unique_suffix() + ".old";
    if (std::rename(target_.c_str(), aside.c_str()) != 0)
      throw_errno("cannot move the old store aside:", target_);
  }
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    if (!aside.empty())
      std::rename(aside.c_str(), target_.c_str());
    throw_errno("cannot rename '" + temp_ + "' to", target_);
  }
  committed_ = true;
  if (!aside.empty())
    fs::remove_all(aside, ec);
}

} // namespace chunked::io
