// Switchyard dashboard. Everything works without this file; it only adds
// copy buttons where the browser can copy.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  if (!navigator.clipboard) {
    return;
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (!source) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.value).then(function () {
        if (status) {
          status.textContent = "Copied.";
        }
      }, function () {
        source.focus();
        source.select();
        if (status) {
          status.textContent = "Could not copy: select the text and copy it.";
        }
      });
    });
  });
  // A click on a one-time secret selects all of it.
  document.querySelectorAll("input[data-select-all]").forEach(function (input) {
    input.addEventListener("focus", function () {
      input.select();
    });
  });
});
