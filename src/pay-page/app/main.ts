// Placeholder for the browser app, which replaces this file: the server side builds and serves
// a real bundle with it. It says what the page will do instead of staying on "Loading".
const app = document.querySelector('#app');
const heading = document.createElement('h1');
heading.textContent = 'This payment page is not ready yet';
const text = document.createElement('p');
text.textContent =
  'The payment page is still being built. Ask the merchant for another way to pay this payment.';
const card = document.createElement('main');
card.className = 'card';
card.dataset.screen = 'placeholder';
card.append(heading, text);
app?.replaceChildren(card);
